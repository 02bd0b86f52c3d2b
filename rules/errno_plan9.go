package rules

// connectionErrnos is empty on Plan 9, whose system errors are strings;
// the stock table's text rules read them instead.
var connectionErrnos []error
