"""Live run events: stored in the database, then fanned out to WebSocket groups."""
