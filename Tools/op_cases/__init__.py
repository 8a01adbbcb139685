"""Operator-family case modules for make_op_fixtures.py: each defines build_cases(rng, Case) -> list[Case]."""
