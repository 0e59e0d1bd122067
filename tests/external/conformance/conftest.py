# The handlers of the conformance server are a generated package's modules, not tests.
collect_ignore_glob = ["handlers/*"]
