"""What every room may use: errors and their codes, inert text, translations, timeouts."""
