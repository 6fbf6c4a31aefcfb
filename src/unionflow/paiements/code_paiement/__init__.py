"""Paying a dues by its payment code, without an account: the public page and API, and the text that names the
code on notices, reminders and screens."""
