"""Reporters: findings to text, JSON or SARIF on a stream."""
