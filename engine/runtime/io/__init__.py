"""Data exchange between subtasks: buffers and in-band events, channels, gates, writers."""
