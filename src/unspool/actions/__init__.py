"""Action schemas, validation and exactly-once dispatch (extra: ``unspool[actions]``)."""
