// The permission matrix (test/support/permission-matrix.ts), shard 1 of 3: the routes whose number is 0 modulo 3.
import { permissionMatrix } from "./support/permission-matrix.ts";

permissionMatrix(0, 3);
