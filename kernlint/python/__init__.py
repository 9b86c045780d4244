"""Reading Python without running it."""
