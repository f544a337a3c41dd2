"""Table vision: camera sources, table layout, card finding, play events and the simulator.

Kept empty of imports on purpose: ``referee replay`` and the box must not pay for OpenCV.
"""
