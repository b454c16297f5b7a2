"""Windows: keyed aggregates over event-time windows (tumbling, sliding, session) and
count windows, and the partial aggregates that cross a hash edge in front of them."""
