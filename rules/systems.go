package rules

// The transient wording of the systems agents call through their tools:
// databases, queues and brokers, search engines, coordination services and
// the control planes of clouds and clusters. Each word is the system's own
// (its source, its documentation, or the messages its users report), and
// testdata/systems.jsonl holds a sourced example of each kind. A system in
// the middle of a failover, at capacity for a moment, or that lost a race
// with a concurrent change, answers so that the same call can pass a moment
// later.

// failoverWording holds when a replicated system has no leader or primary
// for now, or too few live replicas: a leader election, a primary that
// stepped down, a replica asked to write.
func failoverWording(n *needleSet) Condition {
	return n.phrases(
		// Kafka (Errors.java, librdkafka, sarama, kafka-node).
		"not_leader_or_follower", "notleaderorfollower", "not_leader_for_partition", "notleaderforpartition",
		"not leader for partition", "not the leader for", "is not the current leader", "leader_not_available",
		"leadernotavailable", "leader not available", "leadership election", "could not find the leader",
		"not_enough_replicas", "notenoughreplicas", "not enough in-sync replicas", "fewer in-sync replicas than required",
		"coordinator_load_in_progress", "coordinator is loading", "coordinator_not_available",
		"coordinator is not available", "not_coordinator", "not the correct coordinator", "rebalance_in_progress",
		"group is rebalancing", "broker transport failure", "run out of available brokers", "kafka_storage_error",
		"failed to update metadata after", "has passed since batch creation",
		// MongoDB (error codes and driver messages).
		"notwritableprimary", "notprimarynosecondaryok", "notprimaryorsecondary", "not primary and secondaryok",
		"): not primary", "error: not primary", "mongoerror: not primary", "mongoservererror: not primary",
		"not master", "no primary server available", "node is recovering", "primarysteppeddown",
		"interruptedduetoreplstatechange", "shutdowninprogress", "primary stepped down", "transienttransactionerror", "retryablewriteerror",
		// Redis.
		"masterdown", "link with master is down", "noreplicas", "not enough good replicas",
		// Cassandra and ScyllaDB (server and drivers).
		"cannot achieve consistency level", "not enough replicas available for query",
		"not enough replica available for query", "enough replicas present to handle consistency level",
		"timeout during write query", "timeout during read query", "timeout during unlogged_batch write",
		"timeout during batch write", "timeout during cas write", "coordinator node timed out",
		"writetimeout", "readtimeout", "unavailableexception", "nohostavailable", "no hosts available",
		"no host available", "cannot read from a bootstrapping node", "no response received from cassandra",
		// Elasticsearch and OpenSearch.
		"no_shard_available_action_exception", "unavailable_shards_exception", "primary shard is not active",
		"master_not_discovered_exception", "cluster_manager_not_discovered_exception", "nonodeavailableexception",
		"none of the configured nodes are available", "node_not_connected_exception",
		"process_cluster_event_timeout_exception",
		// etcd, Consul, ZooKeeper, NATS, Pulsar, Temporal.
		"etcdserver: leader changed", "etcdserver: no leader", "etcdserver: request timed out", "no cluster leader",
		"leadership lost", "connectionloss", "connection loss", "could not connect to a server",
		"no responders available", "no servers available", "stale connection", "servicenotready",
		"not enough hosts to serve the request",
		// ClickHouse.
		"table is in readonly mode", "table_is_read_only", "all_connection_tries_failed",
		// PostgreSQL and MySQL/MariaDB hot standbys and clusters.
		"conflict with recovery", "terminating connection because of crash of another server process",
		"the database system is not yet accepting connections", "wsrep has not yet prepared node",
	)
}

// capacityWording holds when a system refuses work because it is full for
// now: too many clients, queries or connections, a full queue, a memory
// breaker that trips under load.
func capacityWording(n *needleSet) Condition {
	return Any(
		n.phrases(
			"max number of clients reached", "could not get a resource from the pool", "too many simultaneous queries", "too_many_simultaneous_queries",
			"too many parts", "too_many_parts", "es_rejected_execution_exception", "rejected execution of",
			"rejected_execution_exception", "connection pool timeout", "request limit for the database",
			"the service is currently busy", "capacity exceeded", "no available instance", "too much contention",
			"number of waiters for this lock exceeds", "resource_locked", "the server is currently unable to handle the request",
			"the server was unable to return a response in the time allotted", "no healthy upstream",
		),
		// Elasticsearch's parent or in-flight breaker: the node's memory is
		// full of other requests for now. The request breaker trips on the
		// request itself, and a breaker marked "durability": "PERMANENT"
		// needs a human.
		All(n.phrases("circuit_breaking_exception", "circuitbreakingexception"),
			n.phrases("[parent]", "[in_flight_requests]", "[inflight_requests]"), Not(n.phrases("permanent"))),
	)
}

// conflictWording holds when an operation lost a race with a concurrent
// change and can run again as it is: an optimistic lock, another operation
// in progress on the resource, a transaction conflict.
func conflictWording(n *needleSet) Condition {
	return Any(
		n.phrases(
			// Kubernetes' optimistic concurrency (a 409 on a stale
			// resourceVersion).
			"the object has been modified; please apply your changes to the latest version",
			// Azure Resource Manager and its services.
			"anotheroperationinprogress", "another operation on this or dependent resource is in progress",
			"another operation is in progress", "another operation is pending", "because another operation is in progress",
			"retryableerror", "an update is in progress for resource", "priorrequestnotcomplete",
			"conflicting operation is currently in progress", "conflicting conditional operation is currently in progress",
			"concurrentmodificationexception", "transactioninprogressexception",
			// MongoDB, BigQuery, Oracle, Stripe.
			"writeconflict", "write conflict", "due to concurrent update", "can't serialize access",
			"another in-progress request", "idempotency_key_in_use",
			"another api request or stripe process is currently accessing it",
		),
		// DynamoDB: a transaction that met another on the same item, unless
		// a reason in the same answer is a condition or a validation.
		All(n.phrases("transactionconflict", "transaction is ongoing for the item"),
			Not(n.phrases("conditionalcheckfailed", "validationerror", "itemcollectionsizelimitexceeded",
				"duplicateitem", "provisionedthroughputexceeded"))),
	)
}

// closedConnectionWording holds when a connection or a channel on it was
// closed under the caller: a broker shut down, an MCP server's transport
// closed, a socket closed before the answer.
func closedConnectionWording(n *needleSet) Condition {
	return All(
		n.phrases(
			// RabbitMQ and its clients.
			"connection_forced", "broker forced connection closure", "channel/connection is not open",
			"channel is closed", "channelwrongstateerror", "streamlosterror", "stream connection lost",
			"connection was closed by remote server", "amqpconnectionerror", "connection closed: 320",
			// MCP and JSON-RPC transports, NATS, Go, Node, Python, Java.
			"connection closed", "connection terminated unexpectedly", "use of closed network connection", "socket was unexpectedly closed",
			"other side closed", "und_err_socket", "premature close", "socket disconnected before secure tls",
			"server disconnected", "connect call failed", "connection broken:", "incompleteread",
			"remote host terminated the handshake", "failed to respond", "unexpected end of file from server",
			"client connection lost", "end-of-file on communication channel", "a transport-level error has occurred",
			"network-related or instance-specific error", "ssl syscall error", "apiconnectionerror",
			"api_connection_error", "error occurred with our connection to", "mongonetworkerror",
			"mongonetworktimeouterror", "autoreconnect", "was cleared because another operation failed",
			"refused_stream", "stream was reset", "could not connect to snowflake backend",
			"failed to get the response. hanging?",
		),
		// A closure that reports a fault of the request itself: an AMQP
		// channel closed for a bad argument or a missing queue.
		Not(n.phrases("precondition_failed", "precondition-failed", "not_found - no", "command_invalid",
			"not_allowed", "syntax_error", "frame_error", "unexpected_frame", "not_implemented")),
	)
}

// missingProgram holds when a tool could not even start: its program or a
// file it needs is missing. "MCP error -32000: Connection closed" after
// "Failed to spawn: program not found" is a server that never ran, not a
// connection that dropped.
func missingProgram(n *needleSet) Condition {
	return Any(
		n.phrases("failed to spawn", "program not found", "command not found", "executable file not found",
			"is not recognized as an internal or external command", "no such file or directory"),
		n.pattern(`spawn \S+ enoent`, "enoent"),
	)
}

// vagueWording holds for the words of a failure that says nothing about
// itself ("Something went wrong", "An unexpected error occurred"): a "try
// again later" beside them is the page's habit, not a diagnosis.
func vagueWording(n *needleSet) Condition {
	return n.phrases("something went wrong", "an error occurred", "an error has occurred", "unknown error",
		"unexpected error", "oops")
}
