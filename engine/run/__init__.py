"""The run: the runner that drives a session through the graph, and what it alone keeps track of."""
