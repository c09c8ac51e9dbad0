"""KOIL paper reproduction."""
