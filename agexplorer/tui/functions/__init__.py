"""The function list and moving between functions."""
