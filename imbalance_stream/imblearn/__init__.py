"""(placeholder docstring)"""
