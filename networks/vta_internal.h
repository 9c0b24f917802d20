/* Shared by networks/vta_*.c only: the float CPU parameters of the VTA resnet. */
#ifndef AT_NETWORKS_VTA_INTERNAL_H
#define AT_NETWORKS_VTA_INTERNAL_H

#include "networks/vta.h"

/* (at_net_vta_stem_params and at_net_vta_dense_params moved to networks/vta.h: the LLVM host
 * layers in tune/ feed them to their programs.) */

#endif
