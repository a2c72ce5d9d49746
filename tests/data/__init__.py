"""Data the kata tests need, one folder per kata, each with the script that makes it."""
