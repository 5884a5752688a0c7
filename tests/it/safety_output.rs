//! Every text a user or a record supplies is escaped before it reaches a terminal; serve's connection limits; show's and rotation's caps.
