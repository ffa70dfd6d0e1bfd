"""Single sign-on: a workspace's OpenID provider, its verified domains, the sign-in flow."""
