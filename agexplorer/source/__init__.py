"""The user's file: reading and writing it, and the static parse that needs no TensorFlow."""
