// Package reflectionadk runs the tool calls of Google's Agent Development Kit
// for Go through a reflection.Driver.
package reflectionadk
