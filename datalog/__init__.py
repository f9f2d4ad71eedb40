"""The Datalog rules (Soufflé's language), shipped as package data; `main.dl` includes the rest."""
