"""One module per wire format; :data:`unspool.web.encode.FORMATS` is the table of them."""
