"""oar.vision.ops"""
