"""What every room may use: errors and their codes, inert text, seat names told apart,
translations, timeouts."""
