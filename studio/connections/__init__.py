"""Connection profiles (Arroyo's): named Kafka, PostgreSQL and Redis connections a user owns and may share,
tested from the browser, named by nodes (``connection:<name>``) instead of repeating addresses; and the
topic browser over a Kafka connection, with a schema inferred from the latest messages."""
