"""The explorer's widgets, one public class per module."""
