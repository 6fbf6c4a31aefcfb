"""First start: signing key and a super administrator on an empty database."""

from __future__ import annotations

import secrets

from unionflow.auth import keys
from unionflow.auth.repository import UtilisateurRepository
from unionflow.auth.service import create_local_user
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker


async def bootstrap(settings: Settings) -> str | None:
    """Returns the generated password when one had to be made (printed once by the CLI), else None."""
    engine = create_engine(settings)
    try:
        async with create_sessionmaker(engine)() as session:
            await keys.ensure_signing_key(session)
            generated: str | None = None
            if await UtilisateurRepository(session).count() == 0:
                password = settings.bootstrap_admin_password
                if not password:
                    password = generated = secrets.token_urlsafe(18)
                await create_local_user(
                    session, email=settings.bootstrap_admin_email, password=password,
                    roles=["SUPER_ADMIN", "ADMIN"], prenom="Super", nom="Administrateur",
                    check_password=False, password_change_required=True,
                )
            await session.commit()
            return generated
    finally:
        await engine.dispose()
