"""Graph nodes, one concern per module; `deps.EngineDeps` carries what they call out to."""
