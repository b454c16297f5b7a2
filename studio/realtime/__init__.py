"""The studio's WebSockets (Channels): a run's events and a pipeline's runs, live; socket auth, the origin
check, and revocation reaching open sockets. The events they stream are stored by ``studio.runs.events``."""
