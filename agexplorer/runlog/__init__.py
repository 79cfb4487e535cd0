"""A recorded run read back: its log (JSON lines) and the summary made from it; no TensorFlow, no UI."""
