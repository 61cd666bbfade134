"""Claim-level grounding: does each cited sentence say what its sources said?"""
