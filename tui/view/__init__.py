"""View state and its rules, free of widgets: the session on screen, the plan as the person
edits it, the elapsed time, where citations and matches sit in the report, and the throttle
that keeps a flood of events from redrawing too often."""
