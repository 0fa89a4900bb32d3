// Adapters; see the files beside this one.
