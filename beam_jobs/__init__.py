"""Apache Beam pipelines of the eaglekit loop: clean, generate, featurize (one chain of named transforms each)."""
