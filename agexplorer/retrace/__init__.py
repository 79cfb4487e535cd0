"""The retrace explainer: why a tf.function traced again, and what ran only at trace time."""
