"""Mathematics claim authors share: deep linear networks (forward pass, gradients, noise covariances, Hessians).

Content-side helpers, kept out of the engine: nothing in ``theorem_check`` below this layer imports them.
"""
