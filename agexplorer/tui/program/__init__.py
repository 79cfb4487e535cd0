"""A recorded run in the explorer: the program view and the functions a trace reached."""
