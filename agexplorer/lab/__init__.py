"""The run lab: eager, graph and XLA runs with honest timings, HLO and TensorBoard export."""
