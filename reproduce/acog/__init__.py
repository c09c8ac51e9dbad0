"""ACOG paper reproduction."""
