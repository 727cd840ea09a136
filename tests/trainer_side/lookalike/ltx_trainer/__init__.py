import logging

logger = logging.getLogger("ltx_trainer")
