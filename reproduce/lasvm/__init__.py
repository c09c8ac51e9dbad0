"""Seed 003 (Ertekin 2009): the chapter 3 and chapter 6 reproductions."""
