"""The Textual explorer. This process never imports TensorFlow: the engine runs in the worker."""
