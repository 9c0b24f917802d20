/* Plugins the host must refuse, one per build (tests/plugin.cmake): REFUSED_VERSION exports the
 * ABI record of a future plugin API; REFUSED_NO_ABI forgets AT_PLUGIN_DECLARE. */
#include "templates/plugin.h"

#ifdef REFUSED_VERSION
AT_PLUGIN_EXPORT extern const at_plugin_abi at_plugin_abi_info;
const at_plugin_abi at_plugin_abi_info = {AT_PLUGIN_API_VERSION + 1, (unsigned)sizeof(at_args),
                                          (unsigned)sizeof(at_op_def), (unsigned)sizeof(at_template)};
#endif

AT_PLUGIN_EXPORT at_status at_plugin_init(const at_plugin_api *api)
{
    (void)api;
    return AT_OK;
}
