"""The HLO tab: what XLA compiles, beside the source lines."""
