"""The referee box: LEDs, buzzer and buttons (gpiozero), the OLED (luma.oled), the config file,
the crash-safe match record (SQLite) and ``referee run``, the appliance's main loop.

Hardware libraries are imported lazily inside the modules that drive them, so this package
imports on any machine; tests use gpiozero's ``MockFactory`` and luma's ``dummy`` device.
"""
