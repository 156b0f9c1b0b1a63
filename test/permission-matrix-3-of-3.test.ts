// The permission matrix (test/support/permission-matrix.ts), shard 3 of 3: the routes whose number is 2 modulo 3.
import { permissionMatrix } from "./support/permission-matrix.ts";

permissionMatrix(2, 3);
