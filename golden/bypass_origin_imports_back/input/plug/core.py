from plug.extras import boost_level


class Engine:
    level = boost_level
