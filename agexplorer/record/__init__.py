"""Record a real run: every tf.function trace of a program, why it traced, its verdicts (`record`)."""
