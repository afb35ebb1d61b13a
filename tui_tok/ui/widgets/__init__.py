"""Widgets of the explorer; the big lists are Line-API ``ScrollView``s that draw only visible rows."""
