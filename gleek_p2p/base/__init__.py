"""What every room may use: errors and their codes, inert text, seat names told apart,
lines wrapped for a terminal, translations, timeouts."""
