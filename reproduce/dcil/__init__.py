"""DCIL paper reproduction."""
