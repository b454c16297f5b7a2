"""Environments (dev, staging, prod: each with the parameter values a definition's ``${param:name}`` take),
promotion of a pipeline's version from one environment to the next with an approval where one is asked,
a record of what runs where, and users' secrets (``${secret:name}``), kept encrypted and never shown."""
