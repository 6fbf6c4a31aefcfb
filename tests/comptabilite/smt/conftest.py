from tests.wave.fake_wave import fake_wave_server, wave  # noqa: F401 - fixtures
