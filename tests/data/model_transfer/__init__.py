"""Checkpoints for the model_transfer kata, built in memory by make_checkpoint.py."""
