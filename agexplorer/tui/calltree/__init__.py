"""The Call tree tab: the user's functions a trace reached."""
