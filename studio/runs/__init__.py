"""The run's life: start, commands and control, the driver process, the event store, liveness,
restore and rescale, and what the API reads back (metrics, exceptions, checkpoint statistics).

Below it are the models and the studio's core policies; above it the API, the sockets and the
features, which follow runs through the events it publishes. Nothing here imports a feature.
"""
